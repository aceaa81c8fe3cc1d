/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: attach modes (DVSHARE_ATTACH_MODE values, what each imports). */
#include <cerrno>
#include <string>

#include "attach_mode.h"
#include "dvs_cunit.h"

using namespace dvs;

namespace {

void test_parse()
{
	AttachPolicy p;
	std::string why;

	CU_ASSERT_EQUAL(parse_attach_mode("eager", &p, &why), 0);
	CU_ASSERT_EQUAL(p.mode, DVSHARE_ATTACH_EAGER);
	CU_ASSERT_EQUAL(parse_attach_mode("lazy", &p, &why), 0);
	CU_ASSERT_EQUAL(p.mode, DVSHARE_ATTACH_LAZY);
	CU_ASSERT_FALSE(p.walks());
	CU_ASSERT_EQUAL(parse_attach_mode("selective:rxq*,db[0-3],ctl", &p, &why), 0);
	CU_ASSERT_EQUAL(p.mode, DVSHARE_ATTACH_SELECTIVE);
	CU_ASSERT_EQUAL(p.patterns.size(), 3u);
	CU_ASSERT_TRUE(p.walks());
	/* Refused, each saying why, and leaving *out alone. */
	for (const char *bad : { "", "Eager", "lazy ", "selective", "selective:", "selective:a,,b",
				 "selective:a,", "sometimes" }) {
		why.clear();
		CU_ASSERT_EQUAL(parse_attach_mode(bad, &p, &why), -EINVAL);
		CU_ASSERT_FALSE(why.empty());
		CU_ASSERT_EQUAL(p.mode, DVSHARE_ATTACH_SELECTIVE);
	}
	std::string huge = "selective:" + std::string(300, 'x');
	CU_ASSERT_EQUAL(parse_attach_mode(huge.c_str(), &p, &why), -EINVAL);
}

void test_eager_for()
{
	AttachPolicy p;
	std::string why;

	CU_ASSERT_TRUE(p.eager_for("anything")); /* the default is eager */
	CU_ASSERT_EQUAL(parse_attach_mode("lazy", &p, &why), 0);
	CU_ASSERT_FALSE(p.eager_for("anything"));
	CU_ASSERT_EQUAL(parse_attach_mode("selective:rxq*,db[0-3],q0.umem?", &p, &why), 0);
	CU_ASSERT_TRUE(p.eager_for("rxq12"));
	CU_ASSERT_TRUE(p.eager_for("db2"));
	CU_ASSERT_FALSE(p.eager_for("db4"));
	CU_ASSERT_TRUE(p.eager_for("q0.umem3"));
	CU_ASSERT_FALSE(p.eager_for("q0"));
	CU_ASSERT_FALSE(p.eager_for("txq0"));
}

/* The API records a choice until the attach reads it, then refuses. */
void test_set_then_sealed()
{
	const char *none[] = { nullptr };
	const char *pats[] = { "db*", nullptr };
	AttachPolicy p;
	std::string why;

	CU_ASSERT_EQUAL(attach_mode_set(DVSHARE_ATTACH_SELECTIVE, nullptr), -EINVAL);
	CU_ASSERT_EQUAL(attach_mode_set(DVSHARE_ATTACH_SELECTIVE, none), -EINVAL);
	CU_ASSERT_EQUAL(attach_mode_set(DVSHARE_ATTACH_LAZY, pats), -EINVAL);
	CU_ASSERT_EQUAL(attach_mode_set(7, nullptr), -EINVAL);
	CU_ASSERT_EQUAL(attach_mode_set(99, nullptr), -EINVAL);
	CU_ASSERT_EQUAL(attach_mode_set(DVSHARE_ATTACH_SELECTIVE, pats), 0);
	CU_ASSERT_EQUAL(attach_mode_now(), DVSHARE_ATTACH_SELECTIVE);
	CU_ASSERT_EQUAL(attach_policy(&p, &why), 0);
	CU_ASSERT_EQUAL(p.mode, DVSHARE_ATTACH_SELECTIVE);
	CU_ASSERT_TRUE(p.eager_for("db7"));
	CU_ASSERT_EQUAL(attach_mode_set(DVSHARE_ATTACH_EAGER, nullptr), -EBUSY);
	CU_ASSERT_EQUAL(attach_mode_now(), DVSHARE_ATTACH_SELECTIVE);
}

const struct dvs_test_case cases[] = {
	DVS_TEST(test_parse),
	DVS_TEST(test_eager_for),
	DVS_TEST(test_set_then_sealed),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("attach_mode", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_attach_mode", register_tests)
