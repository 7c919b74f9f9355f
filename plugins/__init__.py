"""Built-in task plugins: c2c, htr, zsod, vqa (one package each)."""
