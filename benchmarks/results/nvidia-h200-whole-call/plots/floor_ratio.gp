set terminal pngcairo size 900,600 font "Sans,11"
set output 'floor_ratio.png'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "EMST time / floor, bars: min to max"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
unset logscale y
set format y '%g'
set title "EMST time over one all-points nearest-neighbour query, NVIDIA H200 (cuda)"
set yrange [0:42.1376]
set label "TSPLIB instances" at graph 1.04, graph 0.2644 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'ratio-tsplib.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 900,600 dynamic font "Sans,11"
set output 'floor_ratio.svg'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "EMST time / floor, bars: min to max"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
unset logscale y
set format y '%g'
set title "EMST time over one all-points nearest-neighbour query, NVIDIA H200 (cuda)"
set yrange [0:42.1376]
set label "TSPLIB instances" at graph 1.04, graph 0.2644 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'ratio-tsplib.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle
unset label
unset multiplot
set output
