set terminal pngcairo size 1680,800 font "Sans,11"
set output 'gridvsbvh.png'
reset
set encoding utf8
set multiplot layout 2,4 title "Whole solve, grid against BVH, NVIDIA H100 80GB HBM3 (cuda); median of the runs, bars: min to max"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "uniform 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5701 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6477 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-uniform-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-uniform-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "uniform 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5919 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6586 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-uniform-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-uniform-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "normal 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5899 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6565 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-normal-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-normal-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "normal 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5953 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6620 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-normal-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-normal-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "clustered 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5937 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6604 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "clustered 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.6361 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7028 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "TSPLIB instances"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.1669 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.2336 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1680,800 dynamic font "Sans,11"
set output 'gridvsbvh.svg'
reset
set encoding utf8
set multiplot layout 2,4 title "Whole solve, grid against BVH, NVIDIA H100 80GB HBM3 (cuda); median of the runs, bars: min to max"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "uniform 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5701 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6477 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-uniform-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-uniform-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "uniform 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5919 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6586 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-uniform-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-uniform-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "normal 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5899 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6565 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-normal-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-normal-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "normal 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5953 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6620 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-normal-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-normal-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "clustered 2D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.5937 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6604 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "clustered 3D"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.6361 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7028 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [42950:2e+07]
set title "TSPLIB instances"
set yrange [1:1000]
set label "grid" at graph 1.04, graph 0.1669 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.2336 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
