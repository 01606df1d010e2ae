/* bcrypt: prints a bcrypt hash of a password, for the exporter's web config
 * in shell tests (basic_auth_users), as htpasswd -nBC COST would.
 *   bcrypt PASSWORD [COST]     COST from 4 to 31, 10 by default (tests use 4,
 *                              the cheapest, as AddressSanitizer is slow)
 * Prints "$2b$COST$" and 53 characters, made by libxcrypt (crypt_gensalt_rn
 * with random bytes from the system, then crypt_r); exits 2 on bad
 * arguments, 1 when libxcrypt refuses. */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bcrypt PASSWORD [COST]\n");
		return 2;
	}
	unsigned long cost = 10;
	if (argc == 3) {
		char *end;
		cost = strtoul(argv[2], &end, 10);
		if (!*argv[2] || *end || cost < 4 || cost > 31) {
			fprintf(stderr, "bcrypt: COST must be 4 to 31\n");
			return 2;
		}
	}
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	/* NULL random bytes: libxcrypt takes them from the system. */
	if (!crypt_gensalt_rn("$2b$", cost, NULL, 0, setting, (int)sizeof(setting)) || setting[0] != '$') {
		perror("bcrypt: crypt_gensalt_rn");
		return 1;
	}
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	if (!cd) {
		perror("bcrypt");
		return 1;
	}
	const char *hash = crypt_r(argv[1], setting, cd);
	/* libxcrypt's failure token starts with '*'. */
	if (!hash || hash[0] != '$' || strncmp(hash, "$2b$", 4) != 0) {
		fprintf(stderr, "bcrypt: crypt_r refused the setting '%s'\n", setting);
		free(cd);
		return 1;
	}
	printf("%s\n", hash);
	free(cd);
	return 0;
}
