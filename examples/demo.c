/* demo.c - the example program of `bash scripts/demo.sh`.
 *
 *   demo <service root URL>
 *
 * PLACEHOLDER: for now it only shows that the program loads libodatastore and that header
 * and library agree; reading and writing the demo service through ods_store_open /
 * ods_store_schedule replaces this once the online store is exported. */
#include <odatastore.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *version = ods_version();
    printf("libodatastore %s (header %s)\n", version, ODS_VERSION_STRING);
    if (strcmp(version, ODS_VERSION_STRING) != 0) {
        fprintf(stderr, "demo: the library is %s but the header says %s\n", version, ODS_VERSION_STRING);
        return 1;
    }
    if (argc > 1) printf("demo service: %s\n", argv[1]);
    printf("(the online-store part of the demo arrives with the store's C exports)\n");
    return 0;
}
