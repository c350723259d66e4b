set terminal pngcairo size 900,600 font "Sans,11"
set output 'floor_ratio.png'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "EMST time / floor"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset logscale y
set format y '%g'
set yrange [0:*]
set title "EMST time over one all-points nearest-neighbour query, NVIDIA H100 80GB HBM3 (cuda)"
plot 'ratio-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D', \
  'ratio-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D', \
  'ratio-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB'
unset multiplot
set output
set terminal svg size 900,600 dynamic font "Sans,11"
set output 'floor_ratio.svg'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "EMST time / floor"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset logscale y
set format y '%g'
set yrange [0:*]
set title "EMST time over one all-points nearest-neighbour query, NVIDIA H100 80GB HBM3 (cuda)"
plot 'ratio-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D', \
  'ratio-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D', \
  'ratio-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB'
unset multiplot
set output
