module github.com/loopsim/loopsim

go 1.26
