set terminal pngcairo size 900,600 font "Sans,11"
set output 'time.png'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set title "EMST time against n, NVIDIA H100 80GB HBM3 (cuda)"
plot 'time-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D: EMST', \
  'floor-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 6 dt 2 lw 1.5 title 'uniform 2D: floor (one all-points NN query)', \
  'time-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D: EMST', \
  'floor-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 6 dt 2 lw 1.5 title 'uniform 3D: floor (one all-points NN query)', \
  'time-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB: EMST'
unset multiplot
set output
set terminal svg size 900,600 dynamic font "Sans,11"
set output 'time.svg'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set title "EMST time against n, NVIDIA H100 80GB HBM3 (cuda)"
plot 'time-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D: EMST', \
  'floor-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 6 dt 2 lw 1.5 title 'uniform 2D: floor (one all-points NN query)', \
  'time-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D: EMST', \
  'floor-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 6 dt 2 lw 1.5 title 'uniform 3D: floor (one all-points NN query)', \
  'time-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB: EMST'
unset multiplot
set output
