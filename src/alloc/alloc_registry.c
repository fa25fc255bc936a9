/* alloc_registry — every allocator, in one explicit array (menus and help list them in this
 * order). Adding an allocator is one file and one line here. */
#include <string.h>

#include "corun/alloc.h"
#include "corun/util.h"

static const struct allocator_ops *const registry[] = {
    &allocator_static,        &allocator_even,  &allocator_proportional,
    &allocator_static_smqos,  &allocator_fair,  &allocator_qos,
    &allocator_themis_engine, &allocator_smqos, &allocator_bw_app,
};

size_t alloc_registry_count(void)
{
    return CORUN_ARRAY_LEN(registry);
}

const struct allocator_ops *alloc_registry_at(size_t i)
{
    return i < CORUN_ARRAY_LEN(registry) ? registry[i] : NULL;
}

const struct allocator_ops *alloc_registry_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(registry); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

size_t alloc_registry_names(const char **names, size_t n)
{
    for (size_t i = 0; i < n && i < CORUN_ARRAY_LEN(registry); i++)
        names[i] = registry[i]->name;
    return CORUN_ARRAY_LEN(registry);
}
