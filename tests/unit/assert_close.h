/* assert_close(a, b, eps): |a - b| <= eps in double precision; NaN never passes (infinities
 * pass only when equal). Include after <cmocka.h>.
 *
 * It replaces CMocka's assert_float_equal, which converts both sides to float (about seven
 * digits, whatever eps says), casts its first operand before the arithmetic in it is done
 * (`(float)x - y`), and passes when a side is NaN or infinite: a test of a value that had
 * turned into NaN or infinity could not fail. */
#ifndef CORUN_TEST_ASSERT_CLOSE_H
#define CORUN_TEST_ASSERT_CLOSE_H

#include <math.h>

static inline void assert_close_at(double a, double b, double eps, const char *as, const char *bs,
                                   const char *file, int line)
{
    if (a == b || fabs(a - b) <= eps)
        return;
    print_error("%s = %.17g and %s = %.17g differ by more than %g\n", as, a, bs, b, eps);
    _fail(file, line);
}

#define assert_close(a, b, eps) assert_close_at((a), (b), (eps), #a, #b, __FILE__, __LINE__)

#endif
