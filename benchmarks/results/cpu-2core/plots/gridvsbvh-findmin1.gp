set terminal pngcairo size 1680,800 font "Sans,11"
set output 'gridvsbvh-findmin1.png'
reset
set encoding utf8
set multiplot layout 2,4 title "FindMin1, the only step where they differ, grid against BVH, CPU backend; median of the runs"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.4045 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.5811 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-uniform-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-uniform-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5320 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7161 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-uniform-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-uniform-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "normal 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.4542 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6017 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-normal-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-normal-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "normal 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5644 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7378 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-normal-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-normal-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "clustered 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.1973 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.2639 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-clustered-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "clustered 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2499 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3390 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-clustered-3d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "TSPLIB instances"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.6360 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7489 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1680,800 dynamic font "Sans,11"
set output 'gridvsbvh-findmin1.svg'
reset
set encoding utf8
set multiplot layout 2,4 title "FindMin1, the only step where they differ, grid against BVH, CPU backend; median of the runs"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.4045 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.5811 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-uniform-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-uniform-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "uniform 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5320 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7161 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-uniform-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-uniform-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "normal 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.4542 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.6017 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-normal-2d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-normal-2d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "normal 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.5644 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7378 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-normal-3d-grid.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-normal-3d-bvh.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "clustered 2D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.1973 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.2639 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-clustered-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-clustered-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "clustered 3D"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.2499 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.3390 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-clustered-3d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-clustered-3d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set rmargin 10
set xrange [5000:400000]
set title "TSPLIB instances"
set yrange [10:1000]
set label "grid" at graph 1.04, graph 0.6360 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "BVH" at graph 1.04, graph 0.7489 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'gridvsbvh-findmin1-tsplib-2d-grid.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'gridvsbvh-findmin1-tsplib-2d-bvh.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
