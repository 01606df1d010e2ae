/* fake_nvml_fields: nvmlDeviceGetFieldValues of the fake NVML, each field
 * answered on its own as NVIDIA documents. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fake_nvml_priv.h"

#if defined(HAVE_GETTERS) && defined(HAVE_NEW)
/* The field ids this fake's driver knows, each read from a scenario key and
 * refused through the same "not_supported"/"errors" key as its getter. */
static const struct {
	unsigned id;
	const char *key, *ns;
	int type;
} FIELDS[] = {
	{NVML_FI_DEV_ECC_DBE_VOL_TOTAL, "ecc_uncorrected", "ecc", NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
	{NVML_FI_DEV_MEMORY_TEMP, "temp_mem", "temp_mem", NVML_VALUE_TYPE_UNSIGNED_INT},
	{NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, "energy_mj", "energy", NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
	{NVML_FI_DEV_POWER_AVERAGE, "power_mw", "power", NVML_VALUE_TYPE_UNSIGNED_INT},
	{NVML_FI_DEV_POWER_CURRENT_LIMIT, "power_limit_mw", "power_limit", NVML_VALUE_TYPE_UNSIGNED_INT},
};

/* Fills one requested field. The call as a whole succeeds; each field has
 * its own answer, as NVIDIA documents: NOT_SUPPORTED where the device lacks
 * it (or "field:ID" is in "not_supported"), the code of "errors": {"field:ID":
 * code} or of its getter's key, and INVALID_ARGUMENT for an id this driver
 * does not know (the R535-era cc32 variant knows none from 185 on, so the
 * power getters must be fallen back to). */
static void fill_field(nvmlDevice_t h, nvmlFieldValue_t *v)
{
	struct fdev *d = dev_of(h);
	char key[32];
	unsigned long long x;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	v->timestamp = (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
	v->latencyUsec = 3;
	v->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
	snprintf(key, sizeof(key), "field:%u", v->fieldId);
#ifdef FAKE_CC32
	if (v->fieldId >= 185)
		return;
#endif
	for (size_t k = 0; k < sizeof(FIELDS) / sizeof(FIELDS[0]); k++) {
		if (FIELDS[k].id != v->fieldId)
			continue;
		nvmlReturn_t r = refusal(d, key);
		if (r == NVML_SUCCESS)
			r = get_u64(h, FIELDS[k].key, FIELDS[k].ns, &x);
		v->nvmlReturn = r;
		if (r != NVML_SUCCESS)
			return;
		v->valueType = FIELDS[k].type;
		if (FIELDS[k].type == NVML_VALUE_TYPE_UNSIGNED_INT)
			v->value.uiVal = (unsigned)x;
		else
			v->value.ullVal = x;
		return;
	}
	v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t do_fields(nvmlDevice_t h, int n, nvmlFieldValue_t *v)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!v || n <= 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < n; i++)
		fill_field(h, &v[i]);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int n, nvmlFieldValue_t *v) { LOCKED(do_fields(h, n, v)); }
#endif
