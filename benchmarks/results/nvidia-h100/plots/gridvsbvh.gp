set terminal pngcairo size 2100,600 font "Sans,11"
set output 'gridvsbvh.png'
reset
set encoding utf8
set multiplot layout 1,3 title "Grid (solid) against BVH (dashed), NVIDIA H100 80GB HBM3 (cuda)"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset key
set title "Whole solve"
plot 'gridvsbvh-median_ms-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-median_ms-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-median_ms-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-median_ms-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-median_ms-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-median_ms-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-median_ms-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-median_ms-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-median_ms-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-median_ms-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-median_ms-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-median_ms-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-median_ms-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-median_ms-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "MFeatures/s = n dim / solve seconds"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset key
set title "Throughput"
plot 'gridvsbvh-mfeatures_s-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-mfeatures_s-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-mfeatures_s-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-mfeatures_s-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-mfeatures_s-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-mfeatures_s-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-mfeatures_s-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-mfeatures_s-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-mfeatures_s-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-mfeatures_s-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-mfeatures_s-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-mfeatures_s-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-mfeatures_s-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-mfeatures_s-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set key outside right top vertical box
set title "FindMin1 (the only step where the indexes differ)"
plot 'gridvsbvh-findmin1_ms-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-findmin1_ms-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-findmin1_ms-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-findmin1_ms-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-findmin1_ms-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-findmin1_ms-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-findmin1_ms-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-findmin1_ms-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-findmin1_ms-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-findmin1_ms-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-findmin1_ms-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-findmin1_ms-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-findmin1_ms-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-findmin1_ms-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
unset multiplot
set output
set terminal svg size 2100,600 dynamic font "Sans,11"
set output 'gridvsbvh.svg'
reset
set encoding utf8
set multiplot layout 1,3 title "Grid (solid) against BVH (dashed), NVIDIA H100 80GB HBM3 (cuda)"
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset key
set title "Whole solve"
plot 'gridvsbvh-median_ms-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-median_ms-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-median_ms-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-median_ms-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-median_ms-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-median_ms-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-median_ms-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-median_ms-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-median_ms-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-median_ms-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-median_ms-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-median_ms-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-median_ms-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-median_ms-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "MFeatures/s = n dim / solve seconds"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
unset key
set title "Throughput"
plot 'gridvsbvh-mfeatures_s-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-mfeatures_s-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-mfeatures_s-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-mfeatures_s-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-mfeatures_s-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-mfeatures_s-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-mfeatures_s-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-mfeatures_s-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-mfeatures_s-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-mfeatures_s-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-mfeatures_s-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-mfeatures_s-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-mfeatures_s-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-mfeatures_s-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "FindMin1 time, all iterations (ms)"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
set key top left box opaque
set key outside right top vertical box
set title "FindMin1 (the only step where the indexes differ)"
plot 'gridvsbvh-findmin1_ms-uniform-2d-grid.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 1 pt 7 lw 2 title 'uniform 2D, grid', \
  'gridvsbvh-findmin1_ms-uniform-2d-bvh.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 2 pt 5 lw 2 title 'uniform 2D, bvh', \
  'gridvsbvh-findmin1_ms-uniform-3d-grid.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 7 lw 2 title 'uniform 3D, grid', \
  'gridvsbvh-findmin1_ms-uniform-3d-bvh.dat' using 1:2 with linespoints lc rgb '#d62728' dt 2 pt 5 lw 2 title 'uniform 3D, bvh', \
  'gridvsbvh-findmin1_ms-normal-2d-grid.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 7 lw 2 title 'normal 2D, grid', \
  'gridvsbvh-findmin1_ms-normal-2d-bvh.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 2 pt 5 lw 2 title 'normal 2D, bvh', \
  'gridvsbvh-findmin1_ms-normal-3d-grid.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 7 lw 2 title 'normal 3D, grid', \
  'gridvsbvh-findmin1_ms-normal-3d-bvh.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 2 pt 5 lw 2 title 'normal 3D, bvh', \
  'gridvsbvh-findmin1_ms-clustered-2d-grid.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'clustered 2D, grid', \
  'gridvsbvh-findmin1_ms-clustered-2d-bvh.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 2 pt 5 lw 2 title 'clustered 2D, bvh', \
  'gridvsbvh-findmin1_ms-clustered-3d-grid.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 1 pt 7 lw 2 title 'clustered 3D, grid', \
  'gridvsbvh-findmin1_ms-clustered-3d-bvh.dat' using 1:2 with linespoints lc rgb '#8c564b' dt 2 pt 5 lw 2 title 'clustered 3D, bvh', \
  'gridvsbvh-findmin1_ms-tsplib-2d-grid.dat' using 1:2 with linespoints lc rgb '#17becf' dt 1 pt 7 lw 2 title 'TSPLIB, grid', \
  'gridvsbvh-findmin1_ms-tsplib-2d-bvh.dat' using 1:2 with linespoints lc rgb '#17becf' dt 2 pt 5 lw 2 title 'TSPLIB, bvh'
unset multiplot
set output
