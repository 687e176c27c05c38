/* examples/cmake, on the Cortex-M55: the same call as the host program,
 * its output through semihosting (the package's templates/firmware/startup.c
 * calls main and exits with its status). */
#include "digits_app.h"
#include "mlip/platform.h"
#include "mlip/status.h"

void fw_write(const char* s); /* startup.c: semihosting output */
void fw_exit(int status);     /* startup.c: semihosting exit; does not return */

/* The runtime reports a failed run here, and stops here on what it cannot
 * return (include/mlip/platform.h). */
void mlip_platform_error(mlip_status s, const char* where) {
  fw_write("mlip: ");
  fw_write(where);
  fw_write(" failed: ");
  fw_write(mlip_status_str(s));
  fw_write("\n");
}

void mlip_platform_abort(mlip_status s) {
  fw_write("mlip: fatal: ");
  fw_write(mlip_status_str(s));
  fw_write("\n");
  fw_exit(1);
}

int main(void) { return digits_app_run(fw_write) == 0 ? 0 : 1; }
