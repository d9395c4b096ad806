// Joins the PTX of several translation units into one module, as nvlink joins their machine
// code for a program built with relocatable device code (nvcc -rdc=true): each unit's private
// symbols are renamed apart, declarations of symbols another unit defines are dropped (but for a
// function an earlier unit takes the address of, whose declaration is kept once), and one header
// is kept.
#pragma once

#include <string>
#include <vector>

namespace cudalab::cudart {

// Returns the joined module; `error` is set (and the result empty) when two units define the
// same visible symbol.
std::string link_ptx(const std::vector<std::string>& units, std::string* error);

}  // namespace cudalab::cudart
