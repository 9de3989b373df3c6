// ST_RUN_CONFIG: dispatches a multi-configuration test binary on --config using the
// ST_CONFIGS(X) list that st_add_template_tests generates. Usage inside a test body:
//   #define ST_DISPATCH(cfg, Model, params) \
//     if (options.config == #cfg) return runConfig<Model>(options, params);
//   ST_CONFIGS(ST_DISPATCH)
//   throw st::tb::TestFailure("unknown --config " + options.config);
#pragma once

#include "harness.h"
#include "params.h"

/// The configurations compiled into this binary, for error messages.
#define ST_CONFIG_NAME(cfg, Model, params) " " #cfg
