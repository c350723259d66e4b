set terminal pngcairo size 900,600 font "Sans,11"
set output 'time.png'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms), bars: min to max"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set title "EMST time against n, NVIDIA H200 (cuda)\nfloor (dashed): one all-points nearest-neighbour query"
set yrange [0.1:10]
set label "TSPLIB instances" at graph 1.04, graph 0.6414 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'time-tsplib.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 900,600 dynamic font "Sans,11"
set output 'time.svg'
reset
set encoding utf8
set logscale xy
set format x "10^{%L}"
set xlabel "points n"
set ylabel "median solve time (ms), bars: min to max"
set grid xtics ytics mxtics mytics lw 0.5 lc rgb '#dddddd'
unset key
set rmargin 30
set offsets graph 0.02, graph 0.02, 0, 0
set title "EMST time against n, NVIDIA H200 (cuda)\nfloor (dashed): one all-points nearest-neighbour query"
set yrange [0.1:10]
set label "TSPLIB instances" at graph 1.04, graph 0.6414 left tc rgb '#2ca02c' point pt 9 lc rgb '#2ca02c' offset char 1,0
plot 'time-tsplib.dat' using 1:2:3:4 with yerrorbars lc rgb '#2ca02c' pt 9 dt 1 lw 2 notitle
unset label
unset multiplot
set output
