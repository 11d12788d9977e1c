// Entry point: adopt a token from the URL fragment, then render.
import './jitless-zod';
import { render } from 'preact';
import { adoptTokenFromFragment } from './api';
import { App } from './app';
import './styles.css';

adoptTokenFromFragment();
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
