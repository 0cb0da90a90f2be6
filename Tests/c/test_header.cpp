// test_header.cpp - include/odatastore.h compiles as C++ (C++11 and later) with
// -Wall -Wextra -pedantic -Werror, its declarations have C linkage, and its initialiser
// macros are valid aggregate initialisers in C++. Compiled by ctest (Tests/c/CMakeLists.txt),
// not linked: it calls no library function.
#include <odatastore.h>
#include <odatastore.h>  // include guard

#include <type_traits>

static_assert(ODS_OK == 0, "ODS_OK is 0");
static_assert(ODS_VERSION_NUMBER ==
                  ODS_VERSION_MAJOR * 1000000 + ODS_VERSION_MINOR * 1000 + ODS_VERSION_PATCH,
              "ODS_VERSION_NUMBER formula");
static_assert(std::is_same<decltype(&ods_version), const char *(*)(void)>::value,
              "ods_version is const char *(void)");
static_assert(std::is_same<decltype(&ods_store_close), int (*)(ods_store *)>::value,
              "ods_store_close is int (ods_store *)");
static_assert(std::is_standard_layout<ods_store_options>::value && std::is_trivial<ods_store_options>::value, "options are a C struct");
static_assert(std::is_standard_layout<ods_request_delegate>::value && std::is_trivial<ods_request_delegate>::value, "delegate is a C struct");
static_assert(std::is_standard_layout<ods_error>::value && std::is_trivial<ods_error>::value, "error is a C struct");

extern "C" void ods_test_cpp_callback(ods_request *, const ods_response *, const ods_error *, void *);

int ods_test_header_cpp(void);
int ods_test_header_cpp(void) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_request_delegate delegate = ODS_REQUEST_DELEGATE_INIT;
    ods_completion_cb completion = ods_test_cpp_callback;
    return static_cast<int>(options.version + delegate.version) + (completion != nullptr ? 0 : 1);
}
