set terminal pngcairo size 1680,800 font "Sans,11"
set output 'gridvsbvh.png'
reset
set encoding utf8
set multiplot layout 2,4 title "Whole solve, grid against BVH, CPU backend; median of the runs, bars: min to max"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5014 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6408 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "uniform 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5993 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7512 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "normal 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5562 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6661 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "normal 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.6446 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7807 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "clustered 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2440 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3106 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
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
set xrange [5000:400000]
set title "clustered 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2792 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3618 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-3d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
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
set xrange [5000:400000]
set title "TSPLIB instances"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.7467 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.8409 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1680,800 dynamic font "Sans,11"
set output 'gridvsbvh.svg'
reset
set encoding utf8
set multiplot layout 2,4 title "Whole solve, grid against BVH, CPU backend; median of the runs, bars: min to max"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5014 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6408 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "uniform 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5993 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7512 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "normal 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5562 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6661 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "normal 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.6446 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7807 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
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
set xrange [5000:400000]
set title "clustered 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2440 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3106 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
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
set xrange [5000:400000]
set title "clustered 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2792 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3618 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-clustered-3d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
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
set xrange [5000:400000]
set title "TSPLIB instances"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.7467 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.8409 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
