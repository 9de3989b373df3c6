// Resource model of st_fork (see fork_resources.h).
#include "model/fork_resources.h"

namespace st::model {

ResourceEstimate forkResources(int64_t branches,
                               int64_t /*width: data_o is data_i wired N times*/) {
  ResourceEstimate r;
  r.ff = branches;          // done_q: the branch has taken the current token
  r.lut = 2 * branches + 3; // valid_o gating and done_q update per branch, the AND of ready_o
  return r;
}

} // namespace st::model
