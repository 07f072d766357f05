// GloVe as the shared run sees it (training_model.h): its defaults (Stanford GloVe's
// window 10, 25 epochs, lr 0.05, AdaGrad) and options, how a fresh run counts (or
// loads) co-occurrences, what its checkpoints keep (the records, in the epoch's order),
// and its output (W + W̃ or W).
#pragma once

#include "train/run/training_model.h"

namespace embed {

const TrainingModel& glove_model();

}  // namespace embed
