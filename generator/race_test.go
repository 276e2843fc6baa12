//go:build race

package generator_test

// raceDetector: under -race the runtime allocates for its own bookkeeping and sync.Pool drops
// items at random, so counted allocations say nothing about the code's growth.
const raceDetector = true
