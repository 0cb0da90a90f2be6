# Configure-time check that the version is written the same way everywhere.
#
# The version lives in project(VERSION) of the top-level CMakeLists.txt. The C header
# (ODS_VERSION_* macros) and the Swift implementation of ods_version()/ods_version_number()
# (Sources/ODataStoreC/Version.swift) repeat it; configuring fails when any of them disagrees.
# Tests/c/test_version.c then checks the built library against the header at run time.

function(ods_check_version_consistency)
    set(header "${PROJECT_SOURCE_DIR}/include/odatastore.h")
    set(swift "${PROJECT_SOURCE_DIR}/Sources/ODataStoreC/Version.swift")
    set(expected_number "")
    math(EXPR expected_number
        "${PROJECT_VERSION_MAJOR} * 1000000 + ${PROJECT_VERSION_MINOR} * 1000 + ${PROJECT_VERSION_PATCH}")

    file(READ "${header}" text)
    set(problems "")
    foreach(part MAJOR MINOR PATCH)
        if(text MATCHES "#define[ \t]+ODS_VERSION_${part}[ \t]+([0-9]+)")
            set(found "${CMAKE_MATCH_1}")
            if(NOT found STREQUAL PROJECT_VERSION_${part})
                string(APPEND problems
                    "\n  include/odatastore.h: ODS_VERSION_${part} is ${found}, project(VERSION) says ${PROJECT_VERSION_${part}}")
            endif()
        else()
            string(APPEND problems "\n  include/odatastore.h: no ODS_VERSION_${part} macro")
        endif()
    endforeach()
    if(text MATCHES "#define[ \t]+ODS_VERSION_STRING[ \t]+\"([^\"]*)\"")
        if(NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
            string(APPEND problems
                "\n  include/odatastore.h: ODS_VERSION_STRING is \"${CMAKE_MATCH_1}\", project(VERSION) says ${PROJECT_VERSION}")
        endif()
    else()
        string(APPEND problems "\n  include/odatastore.h: no ODS_VERSION_STRING macro")
    endif()

    file(READ "${swift}" text)
    if(text MATCHES "odsVersionString: StaticString = \"([^\"]*)\"")
        if(NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
            string(APPEND problems
                "\n  Sources/ODataStoreC/Version.swift: odsVersionString is \"${CMAKE_MATCH_1}\", project(VERSION) says ${PROJECT_VERSION}")
        endif()
    else()
        string(APPEND problems "\n  Sources/ODataStoreC/Version.swift: no `odsVersionString: StaticString = \"...\"`")
    endif()
    if(text MATCHES "odsVersionNumber: Int32 = ([0-9]+) \\* 1_000_000 \\+ ([0-9]+) \\* 1_000 \\+ ([0-9]+)")
        math(EXPR found "${CMAKE_MATCH_1} * 1000000 + ${CMAKE_MATCH_2} * 1000 + ${CMAKE_MATCH_3}")
        if(NOT found EQUAL expected_number)
            string(APPEND problems
                "\n  Sources/ODataStoreC/Version.swift: odsVersionNumber is ${found}, expected ${expected_number}")
        endif()
    else()
        string(APPEND problems
            "\n  Sources/ODataStoreC/Version.swift: no `odsVersionNumber: Int32 = MAJOR * 1_000_000 + MINOR * 1_000 + PATCH`")
    endif()

    # The Swift API's LibraryVersion (User-Agent, the CLI, store files).
    set(library "${PROJECT_SOURCE_DIR}/Sources/ODataStore/Store/LibraryVersion.swift")
    file(READ "${library}" text)
    foreach(part major minor patch)
        string(TOUPPER "${part}" upper)
        if(text MATCHES "static let ${part} = ([0-9]+)")
            if(NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION_${upper})
                string(APPEND problems
                    "\n  Sources/ODataStore/Store/LibraryVersion.swift: ${part} is ${CMAKE_MATCH_1}, project(VERSION) says ${PROJECT_VERSION_${upper}}")
            endif()
        else()
            string(APPEND problems "\n  Sources/ODataStore/Store/LibraryVersion.swift: no `static let ${part} = N`")
        endif()
    endforeach()
    if(text MATCHES "static let string = \"([^\"]*)\"")
        if(NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
            string(APPEND problems
                "\n  Sources/ODataStore/Store/LibraryVersion.swift: string is \"${CMAKE_MATCH_1}\", project(VERSION) says ${PROJECT_VERSION}")
        endif()
    else()
        string(APPEND problems "\n  Sources/ODataStore/Store/LibraryVersion.swift: no `static let string = \"...\"`")
    endif()

    if(problems)
        message(FATAL_ERROR "Version mismatch (project(VERSION ${PROJECT_VERSION})):${problems}")
    endif()
    message(STATUS "odatastore version ${PROJECT_VERSION} (header, C exports and Swift API agree)")
endfunction()
