/* consumer.c - a program built against an INSTALLED libodatastore (Tests/consumer/run.sh):
 * the header it was compiled with and the library it loaded agree on the version. */
#include <odatastore.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    const char *version = ods_version();
    if (version == NULL || strcmp(version, ODS_VERSION_STRING) != 0 ||
        ods_version_number() != ODS_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header %s (%d) but library %s (%d)\n", ODS_VERSION_STRING,
                ODS_VERSION_NUMBER, version ? version : "(null)", ods_version_number());
        return 1;
    }
    printf("consumer: libodatastore %s\n", version);
    return 0;
}
