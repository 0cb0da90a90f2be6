/* CScan is header-only (include/scan.h, static inline); this file makes it a C target of
 * SwiftPM, which then rebuilds the Swift code that inlines the header when the header changes
 * (it does not for a system-library target's headers). */
#include "scan.h"
