// Skip-gram and CBOW as the shared run sees them (training_model.h): their defaults and
// options, how a fresh run reads its corpus, and how it trains on the CPU or a GPU.
#pragma once

#include "train/run/training_model.h"

namespace embed {

// Model::skipgram or Model::cbow.
const TrainingModel& word2vec_model(Model model);

}  // namespace embed
