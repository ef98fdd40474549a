// Isolated dev mode (`npm run dev -w @packyard/settings`): this remote inside the shell's frame.
import('./isolated-bootstrap');
