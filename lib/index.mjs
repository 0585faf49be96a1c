// ESM entry: re-exports the CommonJS implementation so ESM and CJS users
// share one AsyncLocalStorage and one label switcher.
import api from './index.js';

export const { withLabels, currentLabels, configure, supported, reason, strategy } = api;
export default api;
