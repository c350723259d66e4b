set terminal pngcairo size 1800,520 font "Sans,11"
set output 'operators-uniform-3d-1000000-cuda.png'
reset
set encoding utf8
set multiplot layout 1,3 title "uniform-3d-1000000 (n = 1,000,000), NVIDIA H100 80GB HBM3: accumulated operator time by iteration, median of the runs, bars: min to max\n(static pruning: its candidate search counts in iteration 1)"
set title "FindMin1 by pruning (FindMin2 atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin1 time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.1:100]
set label "static" at graph 1.04, graph 0.4474 left tc rgb '#1f77b4' point pt 9 lc rgb '#1f77b4' offset char 1,0
set label "none" at graph 1.04, graph 0.6570 left tc rgb '#9467bd' point pt 7 lc rgb '#9467bd' offset char 1,0
set label "dynamic" at graph 1.04, graph 0.7664 left tc rgb '#ff7f0e' point pt 5 lc rgb '#ff7f0e' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-0-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#9467bd' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-0-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#ff7f0e' pt 5 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-0-2.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 9 dt 1 lw 2 notitle
unset label
set title "FindMin2 by method (static pruning)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin2 time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.01:100]
set label "atomic" at graph 1.04, graph 0.3922 left tc rgb '#1f77b4' point pt 9 lc rgb '#1f77b4' offset char 1,0
set label "list" at graph 1.04, graph 0.9847 left tc rgb '#d62728' point pt 7 lc rgb '#d62728' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-1-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-1-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 9 dt 1 lw 2 notitle
unset label
set title "Every operator (static, atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.01:10]
set label "connect (union)" at graph 1.04, graph 0.3833 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
set label "FindMin2" at graph 1.04, graph 0.5229 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
set label "flatten" at graph 1.04, graph 0.5690 left tc rgb '#ff7f0e' point pt 11 lc rgb '#ff7f0e' offset char 1,0
set label "FindMin1" at graph 1.04, graph 0.7807 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-2-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-2.dat' using 1:2:3:4 with yerrorlines lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-3.dat' using 1:2:3:4 with yerrorlines lc rgb '#ff7f0e' pt 11 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1800,520 dynamic font "Sans,11"
set output 'operators-uniform-3d-1000000-cuda.svg'
reset
set encoding utf8
set multiplot layout 1,3 title "uniform-3d-1000000 (n = 1,000,000), NVIDIA H100 80GB HBM3: accumulated operator time by iteration, median of the runs, bars: min to max\n(static pruning: its candidate search counts in iteration 1)"
set title "FindMin1 by pruning (FindMin2 atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin1 time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.1:100]
set label "static" at graph 1.04, graph 0.4474 left tc rgb '#1f77b4' point pt 9 lc rgb '#1f77b4' offset char 1,0
set label "none" at graph 1.04, graph 0.6570 left tc rgb '#9467bd' point pt 7 lc rgb '#9467bd' offset char 1,0
set label "dynamic" at graph 1.04, graph 0.7664 left tc rgb '#ff7f0e' point pt 5 lc rgb '#ff7f0e' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-0-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#9467bd' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-0-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#ff7f0e' pt 5 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-0-2.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 9 dt 1 lw 2 notitle
unset label
set title "FindMin2 by method (static pruning)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin2 time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.01:100]
set label "atomic" at graph 1.04, graph 0.3922 left tc rgb '#1f77b4' point pt 9 lc rgb '#1f77b4' offset char 1,0
set label "list" at graph 1.04, graph 0.9847 left tc rgb '#d62728' point pt 7 lc rgb '#d62728' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-1-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-1-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 9 dt 1 lw 2 notitle
unset label
set title "Every operator (static, atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated time (ms)"
set logscale y
set xtics 1
unset key
set rmargin 16
set grid lc rgb '#dddddd'
set yrange [0.01:10]
set label "connect (union)" at graph 1.04, graph 0.3833 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
set label "FindMin2" at graph 1.04, graph 0.5229 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
set label "flatten" at graph 1.04, graph 0.5690 left tc rgb '#ff7f0e' point pt 11 lc rgb '#ff7f0e' offset char 1,0
set label "FindMin1" at graph 1.04, graph 0.7807 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
plot 'operators-uniform-3d-1000000-cuda-2-0.dat' using 1:2:3:4 with yerrorlines lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-1.dat' using 1:2:3:4 with yerrorlines lc rgb '#d62728' pt 5 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-2.dat' using 1:2:3:4 with yerrorlines lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle, \
  'operators-uniform-3d-1000000-cuda-2-3.dat' using 1:2:3:4 with yerrorlines lc rgb '#ff7f0e' pt 11 dt 1 lw 2 notitle
unset label
unset multiplot
set output
