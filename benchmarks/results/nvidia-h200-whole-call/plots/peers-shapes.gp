set terminal pngcairo size 1100,600 font "Sans,11"
set output 'peers-shapes.png'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, NVIDIA H200 (cuda), n = 10,000,000\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:14.6]
set xtics ("uniform 2D" 0, "uniform 3D" 1, "normal 2D" 2, "normal 3D" 3, "clustered 2D" 4, "clustered 3D" 5, "blobs 2D" 6, "blobs 3D" 7, "shells 2D" 8, "shells 3D" 9, "planes 2D" 10, "planes 3D" 11, "tori 3D" 12, "filaments 2D" 13, "filaments 3D" 14) rotate by -30 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:325.963]
set label "gridemst" at graph 1.04, graph 0.1224 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "ArborX" at graph 1.04, graph 0.1607 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'peers-shapes-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-shapes-arborx.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1100,600 dynamic font "Sans,11"
set output 'peers-shapes.svg'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, NVIDIA H200 (cuda), n = 10,000,000\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:14.6]
set xtics ("uniform 2D" 0, "uniform 3D" 1, "normal 2D" 2, "normal 3D" 3, "clustered 2D" 4, "clustered 3D" 5, "blobs 2D" 6, "blobs 3D" 7, "shells 2D" 8, "shells 3D" 9, "planes 2D" 10, "planes 3D" 11, "tori 3D" 12, "filaments 2D" 13, "filaments 3D" 14) rotate by -30 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:325.963]
set label "gridemst" at graph 1.04, graph 0.1224 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "ArborX" at graph 1.04, graph 0.1607 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'peers-shapes-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-shapes-arborx.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
