// Includes the reference solution. Must fail once submissions may include only the toolkit's
// headers and the lesson's own files (issue 13's compile jail).
// corpus: pending include-jail
#include "../../../solutions/01-threads.cu"
