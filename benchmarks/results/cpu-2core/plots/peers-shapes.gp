set terminal pngcairo size 1100,600 font "Sans,11"
set output 'peers-shapes.png'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, CPU backend, n = 1,000,000\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:12.6]
set xtics ("uniform 2D" 0, "uniform 3D" 1, "normal 2D" 2, "normal 3D" 3, "blobs 2D" 4, "blobs 3D" 5, "shells 2D" 6, "shells 3D" 7, "planes 2D" 8, "planes 3D" 9, "tori 3D" 10, "filaments 2D" 11, "filaments 3D" 12) rotate by -30 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:24889.7]
set label "quitefastmst" at graph 1.04, graph 0.1418 left tc rgb '#ff7f0e' point pt 11 lc rgb '#ff7f0e' offset char 1,0
set label "gridemst" at graph 1.04, graph 0.1967 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "MemoGFK" at graph 1.04, graph 0.2350 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'peers-shapes-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-shapes-memogfk.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle, \
  'peers-shapes-quitefastmst.dat' using 1:2:3:4 with yerrorbars lc rgb '#ff7f0e' pt 11 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1100,600 dynamic font "Sans,11"
set output 'peers-shapes.svg'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, CPU backend, n = 1,000,000\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:12.6]
set xtics ("uniform 2D" 0, "uniform 3D" 1, "normal 2D" 2, "normal 3D" 3, "blobs 2D" 4, "blobs 3D" 5, "shells 2D" 6, "shells 3D" 7, "planes 2D" 8, "planes 3D" 9, "tori 3D" 10, "filaments 2D" 11, "filaments 3D" 12) rotate by -30 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:24889.7]
set label "quitefastmst" at graph 1.04, graph 0.1418 left tc rgb '#ff7f0e' point pt 11 lc rgb '#ff7f0e' offset char 1,0
set label "gridemst" at graph 1.04, graph 0.1967 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "MemoGFK" at graph 1.04, graph 0.2350 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'peers-shapes-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-shapes-memogfk.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle, \
  'peers-shapes-quitefastmst.dat' using 1:2:3:4 with yerrorbars lc rgb '#ff7f0e' pt 11 dt 1 lw 2 notitle
unset label
unset multiplot
set output
