// The rules between embed-train's options that the option parser cannot state
// (option_rules.cpp): what applies to which model, device and optimizer, what a
// checkpoint or a counts file overrides, and the model's defaults for what was left out.
#pragma once

#include <set>
#include <string>

#include "train/run/train_command.h"

namespace embed {

// The rules between options, given the long names of those on the command line
// ("--window"): throws UsageError for a combination that cannot be run, logs a warning
// for options a checkpoint or a counts file overrides, and fills in what was left to
// the model (window, epochs, lr, optimizer).
void resolve_train_command(TrainCommand& command, const std::set<std::string>& given);

}  // namespace embed
