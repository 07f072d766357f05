#include "train/run/training_run.h"

namespace embed {

void TrainingRun::keep_temporaries() const {
  corpus.keep_spools();
  if (records.spool) records.spool->keep();
}

void TrainingRun::release_temporaries() const {
  corpus.release_spools();
  if (records.spool) records.spool->release();
}

}  // namespace embed
