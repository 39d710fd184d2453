// int_expr_test.cpp: the contract's integer expressions: values, precedence, functions, and every error as a
// message (overflow, division by zero, unknown names, bad syntax, nesting, length), never a crash.
#include <gtest/gtest.h>

#include "gpu/exercise/int_expr.h"

namespace bs::exercise {
namespace {

int64_t value(const char* text, const Bindings& b = {{"n", 1000}, {"block_x", 256}}) {
  const ExprResult r = eval_int_expr(text, b);
  EXPECT_TRUE(r.value.has_value()) << text << ": " << r.error;
  return r.value.value_or(-999);
}

std::string error(const char* text, const Bindings& b = {{"n", 1000}}) {
  const ExprResult r = eval_int_expr(text, b);
  EXPECT_FALSE(r.value.has_value()) << text << " gave " << r.value.value_or(0);
  return r.error;
}

TEST(IntExpr, ValuesAndPrecedence) {
  EXPECT_EQ(value("n"), 1000);
  EXPECT_EQ(value("  n + 1 "), 1001);
  EXPECT_EQ(value("2 + 3 * 4"), 14);
  EXPECT_EQ(value("(2 + 3) * 4"), 20);
  EXPECT_EQ(value("10 - 4 - 3"), 3);
  EXPECT_EQ(value("100 / 7 / 2"), 7);
  EXPECT_EQ(value("n % 256"), 232);
  EXPECT_EQ(value("n/block_x"), 3);
  EXPECT_EQ(value("-n + 3"), -997);
  EXPECT_EQ(value("--4"), 4);
  EXPECT_EQ(value("ceil_div(n, block_x)"), 4);
  EXPECT_EQ(value("ceil_div(1024, block_x)"), 4);
  EXPECT_EQ(value("ceil_div(0, 3)"), 0);
  EXPECT_EQ(value("min(n, 7) * max(2, 3)"), 21);
  EXPECT_EQ(value("9223372036854775807"), INT64_MAX);
}

TEST(IntExpr, ErrorsAreMessages) {
  EXPECT_NE(error("n / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(error("n % (n - 1000)").find("remainder by zero"), std::string::npos);
  EXPECT_NE(error("ceil_div(n, 0)").find("divisor must be positive"), std::string::npos);
  EXPECT_NE(error("9223372036854775807 + 1").find("overflow"), std::string::npos);
  EXPECT_NE(error("3037000500 * 3037000500").find("overflow"), std::string::npos);
  EXPECT_NE(error("99999999999999999999").find("too large"), std::string::npos);
  EXPECT_NE(error("-9223372036854775807 - 2").find("overflow"), std::string::npos);
  EXPECT_NE(error("m + 1").find("unknown name 'm' (known: n)"), std::string::npos);
  EXPECT_NE(error("sqrt(n, 2)").find("unknown function 'sqrt'"), std::string::npos);
  EXPECT_NE(error("min(n)").find("two arguments"), std::string::npos);
  EXPECT_NE(error("(n + 1").find("missing ')'"), std::string::npos);
  EXPECT_NE(error("n +").find("ends early"), std::string::npos);
  EXPECT_NE(error("n n").find("unexpected 'n' at character 3"), std::string::npos);
  EXPECT_NE(error("n; rm -rf").find("unexpected ';'"), std::string::npos);
  EXPECT_NE(error("").find("ends early"), std::string::npos);
  EXPECT_NE(error(std::string(300, '1').c_str()).find("longer than 256"), std::string::npos);
  EXPECT_NE(error((std::string(40, '(') + "1" + std::string(40, ')')).c_str()).find("nested deeper"),
            std::string::npos);
  EXPECT_NE(error(std::string(100, '-').append("1").c_str()).find("nested deeper"), std::string::npos);
}

TEST(IntExpr, CheckOnlyRefusesSyntaxAndNames) {
  const Bindings known{{"n", 0}, {"block_x", 0}};
  EXPECT_FALSE(check_int_expr("ceil_div(n, block_x)", known));
  EXPECT_FALSE(check_int_expr("n / (block_x - 1)", known));  // zero only at run time, for these values
  ASSERT_TRUE(check_int_expr("n / rows", known));
  EXPECT_NE(check_int_expr("n / rows", known)->find("unknown name 'rows'"), std::string::npos);
  EXPECT_TRUE(check_int_expr("n +* 2", known));
}

}  // namespace
}  // namespace bs::exercise
