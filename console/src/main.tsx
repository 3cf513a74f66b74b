// The console's entry: the stylesheet (bundled beside the script, no inline style under the CSP) and the app.
import { render } from 'preact';
import { App } from './app.js';
import './console.css';

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
