// occupancy_arch_test.cpp: the occupancy panel's architecture picker, through the pure functions the panel
// calls: its entries ("this GPU" first where one exists, then sm_75..sm_90), and a model that recomputes for
// the chosen architecture (the same kernel fits differently on sm_75's 32 warps per SM and sm_90's 64).
#include <gtest/gtest.h>

#include <set>

#include "ui/anatomy/anatomy_panel.h"

namespace bs::ui {
namespace {

TEST(OccupancyArch, ChoicesListEveryTableArchitecture) {
  const std::vector<std::string> none = occupancy_arch_choices("");
  ASSERT_EQ(none.size(), anatomy::arch_table().size());
  EXPECT_EQ(none.front().rfind("sm_75", 0), 0u) << none.front();
  const std::vector<std::string> gpu = occupancy_arch_choices("NVIDIA H100");
  ASSERT_EQ(gpu.size(), none.size() + 1);
  EXPECT_EQ(gpu.front(), "this GPU (NVIDIA H100)");
  EXPECT_FALSE(occupancy_arch(0, true).has_value());  // "this GPU": the caller asks the device
  EXPECT_EQ(occupancy_arch(0, false)->name, "sm_75");
  EXPECT_EQ(occupancy_arch(1, true)->name, "sm_75");
  EXPECT_FALSE(occupancy_arch(static_cast<int>(none.size()), false).has_value());
}

TEST(OccupancyArch, ModelRecomputesPerArchitecture) {
  OccupancyPanelModel m;
  m.threads = 256;
  m.regs_per_thread = 32;
  m.static_smem = 0;
  std::set<int> warps;
  std::set<std::string> names;
  for (const anatomy::ArchSpec& a : anatomy::arch_table()) {
    compute_occupancy_model(m, a);
    EXPECT_EQ(m.arch_name, a.name);
    EXPECT_EQ(m.max_warps_per_sm, a.max_warps_per_sm);
    EXPECT_GT(m.model.blocks_per_sm, 0) << a.name << ": " << m.model.reason;
    EXPECT_FALSE(m.curve_threads.empty());
    warps.insert(m.model.warps_per_sm);
    names.insert(m.arch_name);
  }
  EXPECT_EQ(names.size(), anatomy::arch_table().size());
  EXPECT_GT(warps.size(), 1u) << "every architecture gave the same resident warps";
  // Turing (32 warps per SM) against Hopper (64): 256-thread blocks, few registers.
  compute_occupancy_model(m, *anatomy::find_arch("sm_75"));
  EXPECT_EQ(m.model.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(m.model.occupancy, 1.0);
  compute_occupancy_model(m, *anatomy::find_arch("sm_90"));
  EXPECT_EQ(m.model.blocks_per_sm, 8);
  // The curve is recomputed, not appended to.
  const size_t n = m.curve_threads.size();
  compute_occupancy_model(m, *anatomy::find_arch("sm_86"));
  EXPECT_EQ(m.curve_threads.size(), n);
}

}  // namespace
}  // namespace bs::ui
