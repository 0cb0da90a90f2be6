# ctest script (cmake -P): checks that a built shared object can ship without the Swift toolchain.
#
#   cmake -DLIB=<path/to/lib.so> -DREADELF=<readelf> [-DSONAME=<expected soname>]
#         [-DLDD=<ldd>] [-DTOOLCHAIN_DIR=<swift toolchain root>] -P CheckSharedLibrary.cmake
#
# - Every NEEDED entry must be a system library: nothing from the Swift runtime (libswift*,
#   libFoundation*, lib_Foundation*, libdispatch, libBlocksRuntime, libicu*swift).
# - The SONAME, when SONAME is given, must be exactly that.
# - RPATH/RUNPATH may not point into the toolchain.
# - With LDD: every dependency resolves, and none resolves to a file under TOOLCHAIN_DIR.

foreach(var LIB READELF)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "CheckSharedLibrary.cmake: -D${var}=... is required")
    endif()
endforeach()
if(NOT EXISTS "${LIB}")
    message(FATAL_ERROR "${LIB} does not exist (build first)")
endif()

execute_process(COMMAND "${READELF}" -d -W "${LIB}"
    OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${LIB} failed: ${err}")
endif()

set(failures "")
set(needed "")
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" lines "${dynamic}")
foreach(line IN LISTS lines)
    string(REGEX REPLACE ".*\\[([^]]*)\\].*" "\\1" name "${line}")
    list(APPEND needed "${name}")
    if(name MATCHES "^(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libicu.*swift|lib_InternalSwift)")
        string(APPEND failures "\n  NEEDED ${name}: part of the Swift runtime (build with -Xswiftc -static-stdlib)")
    endif()
endforeach()
message(STATUS "NEEDED: ${needed}")

if(DEFINED SONAME)
    if(dynamic MATCHES "\\(SONAME\\)[^\n]*\\[([^]\n]*)\\]")
        if(NOT CMAKE_MATCH_1 STREQUAL SONAME)
            string(APPEND failures "\n  SONAME is ${CMAKE_MATCH_1}, expected ${SONAME}")
        else()
            message(STATUS "SONAME: ${CMAKE_MATCH_1}")
        endif()
    else()
        string(APPEND failures "\n  no SONAME (expected ${SONAME})")
    endif()
endif()

if(DEFINED TOOLCHAIN_DIR AND NOT TOOLCHAIN_DIR STREQUAL "")
    string(REGEX MATCHALL "\\((RPATH|RUNPATH)\\)[^\n]*\\[[^]\n]*\\]" paths "${dynamic}")
    foreach(line IN LISTS paths)
        string(REGEX REPLACE ".*\\[([^]]*)\\].*" "\\1" value "${line}")
        message(STATUS "RUNPATH/RPATH: ${value}")
        string(FIND "${value}" "${TOOLCHAIN_DIR}" at)
        if(NOT at EQUAL -1)
            string(APPEND failures "\n  RPATH/RUNPATH ${value} points into the Swift toolchain")
        endif()
    endforeach()
endif()

if(DEFINED LDD AND NOT LDD STREQUAL "")
    execute_process(COMMAND "${LDD}" "${LIB}" OUTPUT_VARIABLE resolved RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        string(APPEND failures "\n  ldd ${LIB} failed: ${err}")
    endif()
    string(REPLACE "\n" ";" resolved_lines "${resolved}")
    foreach(line IN LISTS resolved_lines)
        if(line MATCHES "not found")
            string(APPEND failures "\n  unresolved dependency: ${line}")
        endif()
        if(DEFINED TOOLCHAIN_DIR AND NOT TOOLCHAIN_DIR STREQUAL "")
            string(FIND "${line}" "${TOOLCHAIN_DIR}" at)
            if(NOT at EQUAL -1)
                string(APPEND failures "\n  resolves into the Swift toolchain: ${line}")
            endif()
        endif()
    endforeach()
endif()

if(failures)
    message(FATAL_ERROR "${LIB}:${failures}")
endif()
message(STATUS "${LIB}: only system libraries are needed")
