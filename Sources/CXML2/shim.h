/* libxml2 headers the protocol layer reads XML with (CSDL, Atom, XML error bodies).
 * Parsing is always done with network access, DTDs and external entities off
 * (see Sources/ODataProtocol/XML/LibXML2SAXSession.swift). */
#ifndef ODS_CXML2_SHIM_H
#define ODS_CXML2_SHIM_H
/* Debian's libxml2 is built with ICU, so <libxml/encoding.h> would pull in the system's
 * <unicode/ucnv.h>. Any Swift module that imports Foundation as well then sees two
 * different `UErrorCode` enums (the system's and Foundation's bundled ICU) and fails to
 * build. The ICU parts of libxml2's API (only the ICU converter fields of
 * xmlCharEncodingHandler) are never used here, so hide them from Swift. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/globals.h>

/* The calling thread's libxml2 error handlers, saved while one of our parses runs.
 * libxml2 keeps these per thread (LIBXML_THREAD_ENABLED), so swapping them never
 * affects another thread. The generic handler is variadic, which Swift can neither
 * implement nor call, hence these helpers. Function pointers travel as void *. */
typedef struct ods_xml_saved_errors {
    void *generic_fn;
    void *generic_ctx;
    void *structured_fn;
    void *structured_ctx;
} ods_xml_saved_errors;

/* Swallows messages libxml2 would otherwise print to stderr (errors raised without
 * a parser context, e.g. by the encoding converters). Our structured handler
 * receives them as well, so nothing is lost. */
static inline void __attribute__((unused)) ods_xml_ignore_generic(void *ctx, const char *msg, ...) {
    (void)ctx;
    (void)msg;
}

/* Saves the thread's handlers into *saved and installs `handler` (with `ctx`) as the
 * structured handler and a silent generic handler. Undo with ods_xml_errors_restore. */
static inline void ods_xml_errors_install(ods_xml_saved_errors *saved,
                                          xmlStructuredErrorFunc handler, void *ctx) {
    saved->generic_fn = (void *)(*__xmlGenericError());
    saved->generic_ctx = *__xmlGenericErrorContext();
    saved->structured_fn = (void *)(*__xmlStructuredError());
    saved->structured_ctx = *__xmlStructuredErrorContext();
    xmlSetGenericErrorFunc(NULL, ods_xml_ignore_generic);
    xmlSetStructuredErrorFunc(ctx, handler);
}

/* Puts back what ods_xml_errors_install saved. */
static inline void ods_xml_errors_restore(const ods_xml_saved_errors *saved) {
    xmlSetGenericErrorFunc(saved->generic_ctx, (xmlGenericErrorFunc)saved->generic_fn);
    xmlSetStructuredErrorFunc(saved->structured_ctx, (xmlStructuredErrorFunc)saved->structured_fn);
}

#endif
