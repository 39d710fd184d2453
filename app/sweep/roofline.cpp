// roofline.cpp: see roofline.h.
#include "app/sweep/roofline.h"

#include <algorithm>

#include "app/sweep/targets.h"
#include "app/sweep/util.h"
#include "core/error.h"

namespace bs::sweep {

using util::join;

std::string roofline_refusal(const Target& t) {
  if (t.has_work_model()) return {};
  std::vector<std::string> with;
  for (const std::string& name : lab_names())
    if (const Target* o = find_target(name); o && o->has_work_model()) with.push_back(name);
  return "the roofline figure needs the lab's work model (FLOPs and DRAM bytes per run): lab " +
         std::string(t.lab()) + " has none" + (with.empty() ? "" : " (labs with one: " + join(with) + ")");
}

void check_roofline(const Target& t) {
  if (std::string why = roofline_refusal(t); !why.empty()) throw InvalidRequest(why);
}

roofline::Chart roofline_chart(const Result& r, const Target& t, const FigureOptions& opt,
                               std::vector<std::string>* unmodelled) {
  roofline::Chart ch;
  ch.gpu = opt.gpu_ceilings;
  ch.cpu = opt.cpu_ceilings;
  ch.datasheet = ch.gpu ? roofline::datasheet_for(ch.gpu->device) : std::nullopt;
  ch.series_per_variant = true;
  ch.cpu_cache_bytes = roofline::cpu_last_level_cache_bytes();  // the GPU's L2 is not in a sweep's result
  const Definition& d = r.definition;
  std::string swept;
  for (const Param& p : d.params)
    swept += (swept.empty() ? "" : " and ") + p.name;
  ch.title = d.lab + ": roofline of the sweep over " + swept;
  if (!t.has_work_model()) return ch;
  const Values base = default_values(t, d.fixed);
  for (const Point& pt : r.points) {
    Values v = base;
    std::string where;
    for (size_t k = 0; k < pt.values.size() && k < d.params.size(); ++k) {
      v[d.params[k].name] = pt.values[k];
      where += (where.empty() ? "" : " ") + d.params[k].name + "=" + pt.values[k];
    }
    for (const SeriesResult& s : pt.series) {
      if (s.time_ms.empty() || !(s.time.median > 0)) continue;
      std::optional<work::Work> w;
      try {
        w = t.work_model(v, s.name);
      } catch (const InvalidRequest&) {  // a point the target cannot read has no model either
      }
      if (!w) {
        if (unmodelled && std::find(unmodelled->begin(), unmodelled->end(), s.name) == unmodelled->end())
          unmodelled->push_back(s.name);
        continue;
      }
      work::RunRecord run;
      run.lab = d.lab;
      run.variant = s.name;
      run.label = d.lab + ": " + s.name + ", " + where;
      run.where = s.gpu ? work::Where::Gpu : work::Where::Cpu;
      run.device = s.gpu ? (r.gpu_name.empty() ? std::string("GPU") : r.gpu_name)
                         : (ch.cpu ? ch.cpu->device : std::string("CPU"));
      run.seconds = s.time.median / 1e3;
      run.work = *w;
      ch.runs.push_back(std::move(run));
    }
  }
  return ch;
}

fig::Figure roofline_figure(const Result& r, const Target& t, const FigureOptions& opt) {
  std::vector<std::string> unmodelled;
  const roofline::Chart ch = roofline_chart(r, t, opt, &unmodelled);
  fig::Figure f = roofline::make_figure(ch);
  if (std::string why = roofline_refusal(t); !why.empty()) {
    f.subtitle = why;
    return f;
  }
  bool ran_gpu = false, ran_cpu = false;
  for (const Point& p : r.points)
    for (const SeriesResult& s : p.series)
      (s.gpu ? ran_gpu : ran_cpu) = true;
  std::vector<std::string> missing;
  if (ran_gpu && !ch.gpu) missing.emplace_back("GPU");
  if (ran_cpu && !ch.cpu) missing.emplace_back("CPU");
  std::string sub = ch.gpu || ch.cpu ? f.subtitle : std::string();
  if (!missing.empty())
    sub += std::string(sub.empty() ? "" : "; ") + join(missing, " and ") +
           " ceilings missing (not measured on this machine: `blockscope roofline` or View > Roofline " +
           "measures them): no roof and no % for those runs";
  if (!unmodelled.empty())
    sub += std::string(sub.empty() ? "" : "; ") + "no work model for " + join(unmodelled) + " (not placed)";
  sub += std::string(sub.empty() ? "" : "; ") + "median of " + std::to_string(r.definition.repetitions) +
         " runs at model intensity" + (r.cancelled ? " (cancelled: partial)" : "");
  f.subtitle = opt.subtitle.empty() ? sub : opt.subtitle;
  return f;
}

std::vector<std::string> fill_ceilings(FigureOptions& opt, bool gpu, bool cpu, const std::string& cache_dir) {
  std::vector<std::string> lines;
  auto side = [&](bool is_gpu, std::optional<roofline::Ceilings>& into) {
    const char* name = is_gpu ? "GPU" : "CPU";
    try {
      std::string msg;
      into = roofline::get_ceilings(is_gpu, cache_dir, &msg);
      lines.push_back(std::string(name) + " ceilings (" + into->device + "): " + msg);
    } catch (const std::exception& e) {
      into.reset();
      lines.push_back(std::string(name) + " ceilings missing: " + e.what());
    }
  };
  if (gpu) side(true, opt.gpu_ceilings);
  if (cpu) side(false, opt.cpu_ceilings);
  return lines;
}

}  // namespace bs::sweep
