/* Private to runtime/sim: the hardware path of mlip_region_run()
 * (hw_backend.c), kept apart from the simulator's. */
#ifndef MLIP_SIM_HW_BACKEND_H_
#define MLIP_SIM_HW_BACKEND_H_

#include "sim_internal.h"

/* Runs a region on the registered driver: load() once (sets
 * region->state->loaded), submit() with every binding resolved in BINDINGS
 * order, wait(). *device_cycles gets the cycle count the driver's wait()
 * reported (0 when the run fails before it). MLIP_ERR_NO_DEVICE without a
 * driver; otherwise the first non-zero status of the three calls. The
 * caller checked the buffer and the caller's arrays (region.c). */
mlip_status mlip_hw_run(const mlip_region* region, const mlip_sim_view* v, void* const* inputs,
                        void* const* outputs, uint8_t* scratch, uint64_t* device_cycles);

#endif /* MLIP_SIM_HW_BACKEND_H_ */
