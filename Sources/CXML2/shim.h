/* libxml2 headers the protocol layer reads XML with (CSDL, Atom, XML error bodies).
 * Parsing is always done with network access and external entities off (see XMLDocument.swift). */
#ifndef ODS_CXML2_SHIM_H
#define ODS_CXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#endif
