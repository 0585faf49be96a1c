// customlabels/register for `node --import customlabels/register app.mjs`:
// the CommonJS module, so --import and --require start the same hooks once.
import './register.js';
