/* predict_registry — every predictor, in one explicit array (menus and help list them in this
 * order). Adding a predictor is one file and one line here. */
#include <string.h>

#include "corun/predict.h"
#include "corun/util.h"

static const struct predictor_ops *const registry[] = {
    &predictor_oracle, &predictor_hsm, &predictor_dase, &predictor_asm, &predictor_themis,
};

size_t predict_registry_count(void)
{
    return CORUN_ARRAY_LEN(registry);
}

const struct predictor_ops *predict_registry_at(size_t i)
{
    return i < CORUN_ARRAY_LEN(registry) ? registry[i] : NULL;
}

const struct predictor_ops *predict_registry_find(const char *name)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(registry); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

size_t predict_registry_names(const char **names, size_t n)
{
    for (size_t i = 0; i < n && i < CORUN_ARRAY_LEN(registry); i++)
        names[i] = registry[i]->name;
    return CORUN_ARRAY_LEN(registry);
}
