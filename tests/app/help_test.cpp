// help_test.cpp: Help > The labs shows the README's "What is in it" list from the copy embedded in the binary:
// every lab of the lab bar has its entry there (the README must not forget a lab), in plain text (no markdown
// marks on screen); the docs' places and the first-start hint name what they promise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "app/labs.h"
#include "app/shell/help.h"
#include "assets/embedded.h"

namespace bs {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

TEST(Help, TheLabOverviewIsTheReadmesListWithEveryLab) {
  const std::string_view readme = embedded::find("README.md");
  ASSERT_FALSE(readme.empty()) << "README.md is not embedded";
  const std::vector<HelpTopic> topics = lab_overview(readme);
  ASSERT_GE(topics.size(), 8u);
  EXPECT_EQ(topics.front().title, "Heat lab");
  for (const HelpTopic& t : topics) {
    EXPECT_EQ(t.title.find('*'), std::string::npos) << t.title;
    EXPECT_EQ(t.text.find("**"), std::string::npos) << t.title << ": " << t.text;
    EXPECT_EQ(t.text.find('`'), std::string::npos) << t.title << ": " << t.text;
    EXPECT_GT(t.text.size(), 60u) << t.title << ": the bullet's continuation lines were not joined";
    EXPECT_EQ(t.text.find("  "), std::string::npos) << t.title << ": " << t.text;
  }
  int labs = 0;
  for (const LabEntry& e : lab_entries()) {
    if (!e.make) continue;
    ++labs;
    // "Heat diffusion" -> "heat", "Memory access" -> "memory", "Multi-GPU" -> "multi-gpu".
    const std::string first = lower(std::string(e.title).substr(0, std::string(e.title).find(' ')));
    const bool found = std::any_of(topics.begin(), topics.end(),
                                   [&](const HelpTopic& t) { return lower(t.title).starts_with(first); });
    EXPECT_TRUE(found) << "the README's lab list has no entry for the " << e.title << " lab";
  }
  EXPECT_GE(labs, 5);
}

TEST(Help, OnlyTheSectionIsRead) {
  const std::string md =
      "# x\n\n## What is in it\n\n- **A lab.** First line\n  second line `code` and **bold**.\n"
      "- **B.** One.\n\n## Command line\n\n- **Not a lab.** no\n";
  const std::vector<HelpTopic> t = lab_overview(md);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].title, "A lab");
  EXPECT_EQ(t[0].text, "First line second line code and bold.");
  EXPECT_EQ(t[1].title, "B");
  EXPECT_TRUE(lab_overview("no such section").empty());
}

TEST(Help, DocPlacesAndTheHint) {
  const std::vector<DocPlace> places = doc_places();
  ASSERT_FALSE(places.empty());
  // The tests run from the build tree of this source: the source tree's docs are there.
  EXPECT_TRUE(places.back().present) << places.back().path;
  const std::string hint = k_first_start_hint;
  EXPECT_NE(hint.find("Help"), std::string::npos);
  EXPECT_NE(hint.find("F1"), std::string::npos);
}

}  // namespace
}  // namespace bs
