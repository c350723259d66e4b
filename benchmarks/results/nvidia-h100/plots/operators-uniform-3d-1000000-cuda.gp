set terminal pngcairo size 1560,480 font "Sans,11"
set output 'operators-uniform-3d-1000000-cuda.png'
reset
set encoding utf8
set multiplot layout 1,3 title "uniform-3d-1000000 (n = 1,000,000), NVIDIA H100 80GB HBM3: accumulated operator time by iteration (static pruning: its candidate search counts in iteration 1)"
set title "FindMin1 by pruning (FindMin2 atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin1 time (ms)"
unset logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-a-0.dat' using 1:2 with linespoints lc rgb '#9467bd' pt 7 dt 1 lw 2 title 'none', \
  'operators-uniform-3d-1000000-cuda-a-1.dat' using 1:2 with linespoints lc rgb '#ff7f0e' pt 5 dt 1 lw 2 title 'dynamic', \
  'operators-uniform-3d-1000000-cuda-a-2.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 9 dt 1 lw 2 title 'static'
unset logscale y
set title "FindMin2 by method (static pruning)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin2 time (ms)"
set logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-b-0.dat' using 1:2 with linespoints lc rgb '#d62728' pt 7 dt 1 lw 2 title 'list', \
  'operators-uniform-3d-1000000-cuda-b-1.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 9 dt 1 lw 2 title 'atomic'
unset logscale y
set title "Every operator (static, atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated time (ms)"
set logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-c-0.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'FindMin1', \
  'operators-uniform-3d-1000000-cuda-c-1.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'FindMin2', \
  'operators-uniform-3d-1000000-cuda-c-2.dat' using 1:2 with linespoints lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'connect (union)', \
  'operators-uniform-3d-1000000-cuda-c-3.dat' using 1:2 with linespoints lc rgb '#ff7f0e' pt 11 dt 1 lw 2 title 'flatten'
unset logscale y
unset multiplot
set output
set terminal svg size 1560,480 dynamic font "Sans,11"
set output 'operators-uniform-3d-1000000-cuda.svg'
reset
set encoding utf8
set multiplot layout 1,3 title "uniform-3d-1000000 (n = 1,000,000), NVIDIA H100 80GB HBM3: accumulated operator time by iteration (static pruning: its candidate search counts in iteration 1)"
set title "FindMin1 by pruning (FindMin2 atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin1 time (ms)"
unset logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-a-0.dat' using 1:2 with linespoints lc rgb '#9467bd' pt 7 dt 1 lw 2 title 'none', \
  'operators-uniform-3d-1000000-cuda-a-1.dat' using 1:2 with linespoints lc rgb '#ff7f0e' pt 5 dt 1 lw 2 title 'dynamic', \
  'operators-uniform-3d-1000000-cuda-a-2.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 9 dt 1 lw 2 title 'static'
unset logscale y
set title "FindMin2 by method (static pruning)"
set xlabel "Borůvka iteration"
set ylabel "accumulated FindMin2 time (ms)"
set logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-b-0.dat' using 1:2 with linespoints lc rgb '#d62728' pt 7 dt 1 lw 2 title 'list', \
  'operators-uniform-3d-1000000-cuda-b-1.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 9 dt 1 lw 2 title 'atomic'
unset logscale y
set title "Every operator (static, atomic)"
set xlabel "Borůvka iteration"
set ylabel "accumulated time (ms)"
set logscale y
set xtics 1
set key below horizontal
set grid lc rgb '#dddddd'
plot 'operators-uniform-3d-1000000-cuda-c-0.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'FindMin1', \
  'operators-uniform-3d-1000000-cuda-c-1.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'FindMin2', \
  'operators-uniform-3d-1000000-cuda-c-2.dat' using 1:2 with linespoints lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'connect (union)', \
  'operators-uniform-3d-1000000-cuda-c-3.dat' using 1:2 with linespoints lc rgb '#ff7f0e' pt 11 dt 1 lw 2 title 'flatten'
unset logscale y
unset multiplot
set output
