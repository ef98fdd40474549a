// Isolated dev mode (`npm run dev -w @packyard/tokens`): this remote inside the shell's frame.
import('./isolated-bootstrap');
