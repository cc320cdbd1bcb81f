-- Each delivery's route beyond its token: the device's app (its bundle id) and, for
-- an APNs token, the environment to send to first, with `!` when the registration
-- stated it ("sandbox! com.example.app", " com.example.app"); NULL: the default app
-- and its environment. After BadDeviceToken in one environment a delivery may be
-- made in the other: the route then names the one that took it.
ALTER TABLE outbox_deliveries ADD COLUMN route TEXT;
