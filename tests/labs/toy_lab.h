// toy_lab.h: a small lab that exists only in the tests: one descriptor (app/labs.h) with a schema, a window,
// a session state, a sweep target, a bench, roofline runs and an anatomy target (the overlay and
// `blockscope anatomy toy`), to show a lab is added without touching anything outside it.
#pragma once

#include "app/anatomy/anatomy_window.h"
#include "app/labs.h"

namespace bs::test {

// The toy lab's descriptor: id "toy"; parameters n (whole, 1..1000, default 10), mode (a | b, default a),
// block (a pair, default 32x4), rounds (1..8, default 1; the app's start flag --rounds). Its sweep target
// sums n numbers on the CPU; `bench toy` prints n and a time; `roofline` times that sum; its anatomy target
// lays n numbers in a row, block.x x block.y threads a block.
LabDescriptor toy_lab_descriptor();

// The toy lab's anatomy window (null when `lab` is not the toy).
const AnatomyWindow* toy_anatomy(const Lab& lab);

}  // namespace bs::test
