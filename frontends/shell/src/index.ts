// An async boundary, so module federation can settle the shared singletons first.
import('./bootstrap');
