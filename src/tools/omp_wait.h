/* How the command-line tools' OpenMP threads wait for work. */
#ifndef GEMST_OMP_WAIT_H
#define GEMST_OMP_WAIT_H

/*
 * OpenMP threads that spin while they wait take the CPU from the threads
 * that have work when the machine is busy: a solve with 2 spinning threads
 * on a loaded 2-core machine ran 1.6 to 3 times slower than with passive
 * waiting.  Unless the user set OMP_WAIT_POLICY, the tools wait passively.
 * GNU OpenMP reads the variable when the program is loaded, before main, so
 * this sets it and executes the program again, with the same arguments
 * (/proc/self/exe); where that fails the program goes on as it is.  Call it
 * first thing in main, before any output or OpenMP call.
 */
void gemst_default_passive_wait(char **argv);

#endif
