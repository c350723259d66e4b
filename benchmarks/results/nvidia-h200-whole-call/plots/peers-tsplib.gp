set terminal pngcairo size 1100,600 font "Sans,11"
set output 'peers-tsplib.png'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, NVIDIA H200 (cuda)\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:35.6]
set xtics ("wi29" 0, "dj38" 1, "qa194" 2, "uy734" 3, "zi929" 4, "lu980" 5, "rw1621" 6, "mu1979" 7, "nu3496" 8, "ca4663" 9, "tz6117" 10, "eg7146" 11, "ym7663" 12, "pm8079" 13, "ei8246" 14, "ar9152" 15, "ja9847" 16, "gr9882" 17, "kz9976" 18, "fi10639" 19, "mo14185" 20, "ho14473" 21, "it16862" 22, "vm22775" 23, "sw24978" 24, "bm33708" 25, "ch71009" 26, "usa13509" 27, "d15112" 28, "d18512" 29, "pla33810" 30, "pla85900" 31, "mona-lisa100K" 32, "sra104815" 33, "usa115475" 34, "earring200K" 35) rotate by -70 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:5.53463]
set label "gridemst" at graph 1.04, graph 0.3753 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "ArborX" at graph 1.04, graph 0.5249 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'peers-tsplib-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-tsplib-arborx.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
set terminal svg size 1100,600 dynamic font "Sans,11"
set output 'peers-tsplib.svg'
reset
set encoding utf8
set title "gridemst beside its peers, the same points file in the same run, NVIDIA H200 (cuda)\nmedian of the timed runs, bars: min to max"
set ylabel "solve time (ms)"
set xrange [-0.6:35.6]
set xtics ("wi29" 0, "dj38" 1, "qa194" 2, "uy734" 3, "zi929" 4, "lu980" 5, "rw1621" 6, "mu1979" 7, "nu3496" 8, "ca4663" 9, "tz6117" 10, "eg7146" 11, "ym7663" 12, "pm8079" 13, "ei8246" 14, "ar9152" 15, "ja9847" 16, "gr9882" 17, "kz9976" 18, "fi10639" 19, "mo14185" 20, "ho14473" 21, "it16862" 22, "vm22775" 23, "sw24978" 24, "bm33708" 25, "ch71009" 26, "usa13509" 27, "d15112" 28, "d18512" 29, "pla33810" 30, "pla85900" 31, "mona-lisa100K" 32, "sra104815" 33, "usa115475" 34, "earring200K" 35) rotate by -70 left
unset key
set rmargin 16
set grid ytics lc rgb '#dddddd'
set yrange [0:5.53463]
set label "gridemst" at graph 1.04, graph 0.3753 left tc rgb '#1f77b4' point pt 7 lc rgb '#1f77b4' offset char 1,0
set label "ArborX" at graph 1.04, graph 0.5249 left tc rgb '#d62728' point pt 5 lc rgb '#d62728' offset char 1,0
plot 'peers-tsplib-gridemst.dat' using 1:2:3:4 with yerrorbars lc rgb '#1f77b4' pt 7 dt 1 lw 2 notitle, \
  'peers-tsplib-arborx.dat' using 1:2:3:4 with yerrorbars lc rgb '#d62728' pt 5 dt 1 lw 2 notitle
unset label
unset multiplot
set output
