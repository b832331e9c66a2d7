#include "test_util.h"
float static_copy_a(void);
float static_copy_b(void);
int main(void)
{
    CHECK(static_copy_a() == 29.0f);
    CHECK(static_copy_b() == 25.0f);
    return tu_finish("static");
}
