migrate((app) => { const s = app.settings(); s.meta.appName = "From CLI"; app.save(s) })
