// Isolated dev mode (`npm run dev -w @packyard/workspaces`): this remote inside the shell's frame.
import('./isolated-bootstrap');
