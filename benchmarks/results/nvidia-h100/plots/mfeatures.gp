set terminal pngcairo size 900,600 font "Sans,11"
set output 'mfeatures.png'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "MFeatures/s = n * dim / median seconds"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set key bottom right box opaque
set title "Throughput against n, NVIDIA H100 80GB HBM3 (cuda)"
plot 'mfeatures-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D', \
  'mfeatures-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D', \
  'mfeatures-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB'
unset multiplot
set output
set terminal svg size 900,600 dynamic font "Sans,11"
set output 'mfeatures.svg'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "MFeatures/s = n * dim / median seconds"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set key bottom right box opaque
set title "Throughput against n, NVIDIA H100 80GB HBM3 (cuda)"
plot 'mfeatures-2d.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 dt 1 lw 2 title 'uniform 2D', \
  'mfeatures-3d.dat' using 1:2 with linespoints lc rgb '#d62728' pt 5 dt 1 lw 2 title 'uniform 3D', \
  'mfeatures-tsplib.dat' using 1:2 with points lc rgb '#2ca02c' pt 9 dt 1 lw 2 title 'TSPLIB'
unset multiplot
set output
