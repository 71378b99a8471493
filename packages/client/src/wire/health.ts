/** GET /healthz */
export interface HealthStatus {
  status: "ok";
}
