// toy_lab.h: a small lab that exists only in the tests: one descriptor (app/labs.h) with a schema, a window,
// a session state, a sweep target and a bench, to show a lab is added without touching anything outside it.
#pragma once

#include "app/labs.h"

namespace bs::test {

// The toy lab's descriptor: id "toy"; parameters n (whole, 1..1000, default 10), mode (a | b, default a),
// block (a pair, default 32x4). Its sweep target sums n numbers on the CPU; `bench toy` prints n and a time.
LabDescriptor toy_lab_descriptor();

}  // namespace bs::test
